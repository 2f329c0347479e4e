# about: an attribute declared list[tuple[Token, Context | None]]: pop() hands out an item,
# about: unpacking it gives the tuple's second type to `ctx` (Flask's RequestContext.pop)
# path: app.py
from __future__ import annotations


class Token:
    pass


class Context:
    def close(self, exc=None):
        return exc


class Stack:
    def __init__(self):
        self.tokens: list[tuple[Token, Context | None]] = []

    def push(self, ctx: Context):
        self.tokens.append((Token(), ctx))
        #                   ^ calls: app.Token

    def pop(self):
        token, ctx = self.tokens.pop()
        if ctx is not None:
            ctx.close(None)
            #   ^ calls: app.Context.close


def run():
    s = Stack()
    #   ^ calls: app.Stack
    #   ^ calls: app.Stack.__init__
    s.push(Context())
    # ^ calls: app.Stack.push
    #      ^ calls: app.Context
    s.pop()
    # ^ calls: app.Stack.pop


run()
#^ calls: app.run
