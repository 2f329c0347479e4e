# about: a decorator on a method is called from the class body; calling the method runs the wrapper
# path: app.py
def logged(method):
    def wrapper(self, *args):
        return method(self, *args)
        #      ^ calls: app.Service.start

    return wrapper


class Service:
    @logged
    #^ calls: app.logged
    def start(self):
        return "started"


Service().start()
#^ calls: app.Service
#         ^ calls: app.logged.wrapper
