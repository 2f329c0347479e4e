# about: functions imported by `from m import f`, `import m` and `from m import f as g`
# path: to.py
def work():
    pass


def other():
    pass
# path: main.py
import to
from to import other as renamed
from to import work

work()
#^ calls: to.work
to.other()
#  ^ calls: to.other
renamed()
#^ calls: to.other
