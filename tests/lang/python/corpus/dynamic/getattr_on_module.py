# about: getattr() on an imported module with a literal name: the function of that name is called
# path: to.py
def work():
    pass
# path: main.py
import to

getattr(to, "work")()
#^ calls: to.work
