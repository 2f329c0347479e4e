# about: a lambda in a class body folds into the class
# path: app.py
def fmt(v):
    return str(v)


class Column:
    render = lambda self, v: fmt(v)  # noqa: E731
    #                        ^ calls: app.fmt


Column().render(1)
#^ calls: app.Column
#        ^ calls: -
