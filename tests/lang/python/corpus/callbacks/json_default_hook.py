# about: json.dumps(default=f) calls f for objects it cannot encode
# path: app.py
import json


class Money:
    def __init__(self, cents):
        self.cents = cents


def encode(obj):
    return obj.cents


def dump():
    return json.dumps({"price": Money(5)}, default=encode)
    #                           ^ calls: app.Money
    #                           ^ calls: app.Money.__init__
    #                                              ^ calls: app.encode


dump()
#^ calls: app.dump
