# about: an imported module passed as an argument; the callee calls a function of it
# path: plugins.py
def hook():
    return 1
# path: main.py
import plugins


def run(mod):
    return mod.hook()
    #          ^ calls: plugins.hook


run(plugins)
#^ calls: main.run
