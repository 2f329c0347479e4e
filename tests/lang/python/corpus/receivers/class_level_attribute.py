# about: a class-level attribute holding an instance types self.attr
# path: app.py
class Formatter:
    def fmt(self, v):
        return str(v)


class View:
    formatter = Formatter()
    #           ^ calls: app.Formatter

    def render(self, v):
        return self.formatter.fmt(v)
        #                     ^ calls: app.Formatter.fmt


View().render(1)
#^ calls: app.View
#      ^ calls: app.View.render
