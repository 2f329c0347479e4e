# about: two stacked decorators: the inner one is applied first; a call runs the outer wrapper
# path: app.py
def bold(f):
    def bold_wrapper():
        return "<b>" + f() + "</b>"
        #              ^ calls: app.italic.italic_wrapper

    return bold_wrapper


def italic(f):
    def italic_wrapper():
        return "<i>" + f() + "</i>"
        #              ^ calls: app.text

    return italic_wrapper


@bold
#^ calls: app.bold
@italic
#^ calls: app.italic
def text():
    return "hi"


text()
#^ calls: app.bold.bold_wrapper
