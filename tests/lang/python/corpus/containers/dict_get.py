# about: dict.get(key) returns a stored function, which is then called
# path: app.py
def json_format(x):
    return "json"


def text_format(x):
    return "text"


FORMATS = {"json": json_format, "text": text_format}


def render(kind, value):
    fmt = FORMATS.get(kind, text_format)
    return fmt(value)
    #      ^ calls: app.json_format
    #      ^ calls: app.text_format


render("json", 1)
#^ calls: app.render
render("text", 1)
#^ calls: app.render
