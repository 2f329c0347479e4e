# about: a list, tuple or dict written in a call's arguments (positional or keyword), or
# about: a name bound to one, lands in a parameter whose items the callee calls: by index,
# about: by key, in a loop, or in a function it passes the container on to
# path: pkg/__init__.py
# path: pkg/runner.py
def run_all(steps):
    for step in steps:
        step()
       #^ calls: pkg.main.load
       #^ calls: pkg.main.save
       #^ calls: pkg.main.Report
       #^ calls: pkg.main.Report.__init__


def run_first(steps):
    steps[0]()
   #^ calls: pkg.main.check


def dispatch(name, table=None):
    handler = table[name]
    handler()
   #^ calls: pkg.main.on_start


def forward(steps):
    run_all(steps)
   #^ calls: pkg.runner.run_all
# path: pkg/main.py
from pkg.runner import dispatch, forward, run_all, run_first


def load():
    pass


def save():
    pass


def check():
    pass


def on_start():
    pass


class Report:
    def __init__(self):
        pass


def main():
    run_all([load, save])
   #^ calls: pkg.runner.run_all
    run_first((check,))
   #^ calls: pkg.runner.run_first
    dispatch("start", table={"start": on_start})
   #^ calls: pkg.runner.dispatch
    steps = [Report]
    forward(steps)
   #^ calls: pkg.runner.forward


main()
#^ calls: pkg.main.main
