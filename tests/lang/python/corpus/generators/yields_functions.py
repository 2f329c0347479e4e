# about: a generator yields functions; the loop variable is called
# path: main.py
def first():
    pass


def second():
    pass


def handlers():
    yield first
    yield second


for h in handlers():
#        ^ calls: main.handlers
    h()
   #^ calls: main.first
   #^ calls: main.second
