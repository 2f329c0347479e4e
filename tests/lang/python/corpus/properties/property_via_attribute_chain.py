# about: a property read on an attribute typed in __init__
# path: app.py
class Settings:
    @property
    def debug(self):
        return False


class App:
    def __init__(self):
        self.settings = Settings()
        #               ^ calls: app.Settings

    def is_debug(self):
        return self.settings.debug
        #                    ^ calls: app.Settings.debug


App().is_debug()
#^ calls: app.App
#^ calls: app.App.__init__
#     ^ calls: app.App.is_debug
