# about: functions added to a list by extend() and insert(), then called in a loop
# path: main.py
def first():
    pass


def second():
    pass


fs = []
fs.extend([first])
fs.insert(0, second)
for f in fs:
    f()
   #^ calls: main.first
   #^ calls: main.second
