# about: a decorator applied inside a function body is called by that function
# path: app.py
def once(f):
    done = []

    def once_wrapper():
        if not done:
            done.append(f())
            #           ^ calls: app.setup.init
        return done[0]

    return once_wrapper


def setup():
    @once
    #^ calls: app.once
    def init():
        return 42

    init()
   #^ calls: app.once.once_wrapper
    return init()
    #      ^ calls: app.once.once_wrapper


setup()
#^ calls: app.setup
