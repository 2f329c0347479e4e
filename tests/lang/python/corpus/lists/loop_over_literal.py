# about: a `for` over a literal tuple or list written in the loop: the loop variable is each
# about: item in turn (imported functions, an instance constructed in the literal)
# path: pkg/__init__.py
# path: pkg/steps.py
def load():
    pass


def save():
    pass


class Cleanup:
    def run(self):
        pass
# path: pkg/main.py
from pkg import steps
from pkg.steps import Cleanup


def pipeline():
    for step in (steps.load, steps.save):
        step()
       #^ calls: pkg.steps.load
       #^ calls: pkg.steps.save


def objects():
    for obj in [Cleanup()]:
        #       ^ calls: pkg.steps.Cleanup
        obj.run()
        #   ^ calls: pkg.steps.Cleanup.run


pipeline()
#^ calls: pkg.main.pipeline
objects()
#^ calls: pkg.main.objects
