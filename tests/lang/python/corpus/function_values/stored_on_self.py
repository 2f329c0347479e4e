# about: a callback stored on an instance attribute in __init__ and called from a method
# path: app.py
class Button:
    def __init__(self, on_click):
        self.on_click = on_click

    def click(self):
        return self.on_click()
        #           ^ calls: app.save


def save():
    return "saved"


b = Button(save)
#   ^ calls: app.Button
#   ^ calls: app.Button.__init__
b.click()
# ^ calls: app.Button.click
