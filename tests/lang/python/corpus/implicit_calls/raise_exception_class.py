# about: raise C(...) constructs C: a call of the class and of its __init__
# path: app.py
class ValidationError(Exception):
    def __init__(self, field):
        super().__init__(field)
        self.field = field


def validate(value):
    if not value:
        raise ValidationError("value")
        #     ^ calls: app.ValidationError
        #     ^ calls: app.ValidationError.__init__
    return value


def run():
    try:
        validate("")
       #^ calls: app.validate
    except ValidationError as e:
        return e.field


run()
#^ calls: app.run
