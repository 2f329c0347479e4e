# about: functions stored into a dict by subscript assignment, then called after indexing
# path: app.py
def create():
    return "create"


def delete():
    return "delete"


ACTIONS = {}
ACTIONS["create"] = create
ACTIONS["delete"] = delete


def perform(name):
    return ACTIONS[name]()
    #      ^ calls: app.create
    #      ^ calls: app.delete


perform("create")
#^ calls: app.perform
perform("delete")
#^ calls: app.perform
