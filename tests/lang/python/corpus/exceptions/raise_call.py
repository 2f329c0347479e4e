# about: raising an instance of a project exception class calls the class and its __init__;
# about: the handler calls a method of the caught exception bound by `as`
# path: main.py
class AppError(Exception):
    def __init__(self, msg):
        super().__init__(msg)
        self.msg = msg

    def show(self):
        return self.msg


def fail():
    raise AppError("x")
    #     ^ calls: main.AppError
    #     ^ calls: main.AppError.__init__


def run():
    try:
        fail()
       #^ calls: main.fail
    except AppError as e:
        return e.show()
        #        ^ calls: main.AppError.show


run()
#^ calls: main.run
