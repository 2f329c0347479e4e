# about: calls of builtin functions beside calls of project functions: only the project
# about: functions are edges (builtins are set aside)
# path: main.py
def name():
    return "x"


def run():
    print(len(name()), abs(-1))
    #         ^ calls: main.name
    return str(name())
    #          ^ calls: main.name


run()
#^ calls: main.run
