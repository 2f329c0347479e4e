# about: assigning a property calls its setter (the second definition of the name), del calls the deleter
# path: app.py
class Account:
    def __init__(self):
        self._balance = 0

    @property
    def balance(self):
        return self._balance

    @balance.setter
    def balance(self, value):
        self._balance = check(value)
        #               ^ calls: app.check

    @balance.deleter
    def balance(self):
        self._balance = 0


def check(value):
    return max(value, 0)


def run():
    a = Account()
    #   ^ calls: app.Account
    #   ^ calls: app.Account.__init__
    a.balance = 5
    # ^ calls: app.Account.balance#2
    del a.balance
    #     ^ calls: app.Account.balance#3
    return a.balance
    #        ^ calls: app.Account.balance


run()
#^ calls: app.run
