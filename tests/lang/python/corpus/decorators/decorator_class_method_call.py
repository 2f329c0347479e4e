# about: a decorator applied to a method; calling the method through an instance calls the wrapper,
# about: which calls the method
# path: main.py
def log(f):
    def wrapper(self):
        return f(self)
        #      ^ calls: main.Svc.run

    return wrapper


class Svc:
    @log
    #^ calls: main.log
    def run(self):
        return 1


Svc().run()
#^ calls: main.Svc
#     ^ calls: main.log.wrapper
