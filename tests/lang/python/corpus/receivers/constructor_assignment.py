# about: a = A(); a.m() calls A.m
# path: app.py
class Mailer:
    def send(self, to):
        return to


def notify():
    m = Mailer()
    #   ^ calls: app.Mailer
    return m.send("bob")
    #        ^ calls: app.Mailer.send


notify()
#^ calls: app.notify
