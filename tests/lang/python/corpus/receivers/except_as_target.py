# about: `except E as e` binds e to an instance of E (or of a subclass: the override runs,
# about: also through a bound method's alias); `except (A, B) as e` is typed by its first class
# path: app.py
class AppError(Exception):
    def show(self):
        return "app"


class UsageError(AppError):
    def show(self):
        return "usage"


class OtherError(Exception):
    def show(self):
        return "other"


def fail(kind):
    if kind == "usage":
        raise UsageError()
        #     ^ calls: app.UsageError
    if kind == "app":
        raise AppError()
        #     ^ calls: app.AppError
    raise OtherError()
    #     ^ calls: app.OtherError


def main(kind):
    try:
        fail(kind)
        #^ calls: app.fail
    except AppError as e:
        report = e.show
    except (OtherError, KeyError) as e:
        e.show()
        #^ calls: app.OtherError.show
        return None
    return report()
    #      ^ calls: app.AppError.show
    #      ^ calls: app.UsageError.show


main("usage")
#^ calls: app.main
main("app")
#^ calls: app.main
main("other")
#^ calls: app.main
