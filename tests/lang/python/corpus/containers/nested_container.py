# about: a function stored in a list inside a dict, called after two subscripts
# path: app.py
def up():
    return "up"


def down():
    return "down"


ROUTES = {"moves": [up, down]}


def go(i):
    return ROUTES["moves"][i]()
    #      ^ calls: app.up
    #      ^ calls: app.down


go(0)
#^ calls: app.go
go(1)
#^ calls: app.go
