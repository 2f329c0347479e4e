# about: reading a property anywhere in an expression calls its getter: a condition, `not`,
# about: `or`, a comparison, an f-string, a subscript's key, an operand, an assert, the value
# about: assigned to another object's attribute
# path: app.py
class Settings:
    def __init__(self):
        self.values = {"debug": True}

    @property
    def debug(self):
        return self.values["debug"]

    @property
    def name(self):
        return "app"

    @property
    def key(self):
        return "debug"

    @property
    def level(self):
        return 2

    @property
    def ready(self):
        return True

    @property
    def prefix(self):
        return "/static"


class Holder:
    label = ""


def condition(s: Settings):
    if s.debug:
        #^ calls: app.Settings.debug
        return 1
    return 0


def negation(s: Settings):
    return not s.ready
    #            ^ calls: app.Settings.ready


def either(s: Settings, other):
    return other or s.debug
    #                 ^ calls: app.Settings.debug


def comparison(s: Settings):
    return s.level > 1
    #        ^ calls: app.Settings.level


def formatted(s: Settings):
    return f"{s.prefix}/<path>"
    #           ^ calls: app.Settings.prefix


def keyed(s: Settings):
    return s.values[s.key]
    #                 ^ calls: app.Settings.key


def operand(s: Settings):
    return s.level * 10
    #        ^ calls: app.Settings.level


def checked(s: Settings):
    assert s.name == "app"
    #        ^ calls: app.Settings.name


def copied(s: Settings, h: Holder):
    h.label = s.name
    #           ^ calls: app.Settings.name


def run():
    s = Settings()
    #   ^ calls: app.Settings
    #   ^ calls: app.Settings.__init__
    condition(s)
   #^ calls: app.condition
    negation(s)
   #^ calls: app.negation
    either(s, None)
   #^ calls: app.either
    comparison(s)
   #^ calls: app.comparison
    formatted(s)
   #^ calls: app.formatted
    keyed(s)
   #^ calls: app.keyed
    operand(s)
   #^ calls: app.operand
    checked(s)
   #^ calls: app.checked
    copied(s, Holder())
   #^ calls: app.copied
    #         ^ calls: app.Holder


run()
#^ calls: app.run
