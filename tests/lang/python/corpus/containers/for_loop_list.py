# about: functions stored in a list and called in a for loop over it
# path: app.py
def load():
    return "load"


def save():
    return "save"


def run_all(steps):
    out = []
    for step in steps:
        out.append(step())
        #          ^ calls: app.load
        #          ^ calls: app.save
    return out


run_all([load, save])
#^ calls: app.run_all
