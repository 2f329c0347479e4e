# about: a class reached as an attribute of an imported module, without __init__
# path: to.py
class Plain:
    def go(self):
        return 1
# path: main.py
import to

p = to.Plain()
#      ^ calls: to.Plain
p.go()
# ^ calls: to.Plain.go
