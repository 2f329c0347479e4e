# about: functions iterated through enumerate() and zip(): the loop variables hold the functions
# path: main.py
def first():
    pass


def second():
    pass


for i, fn in enumerate([first, second]):
    fn()
   #^ calls: main.first
   #^ calls: main.second
for name, fn2 in zip("ab", [first]):
    fn2()
   #^ calls: main.first
