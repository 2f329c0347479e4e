# about: an instance passed as an argument; the callee calls a method on its parameter
# path: main.py
class Printer:
    def show(self, x):
        return x


def report(p):
    return p.show(1)
    #        ^ calls: main.Printer.show


report(Printer())
#^ calls: main.report
#      ^ calls: main.Printer
