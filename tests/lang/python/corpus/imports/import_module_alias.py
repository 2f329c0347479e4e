# about: import a.b as m; m.f()
# path: pkg/__init__.py
# path: pkg/maths.py
def area(r):
    return 3 * r * r
# path: main.py
import pkg.maths as m

m.area(2)
# ^ calls: pkg.maths.area
