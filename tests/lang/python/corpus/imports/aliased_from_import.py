# about: from m import f as g; g() calls f, and a local f is another function
# path: pkg/__init__.py
# path: pkg/text.py
def clean(s):
    return s.strip()
# path: main.py
from pkg.text import clean as tidy


def clean(s):
    return tidy(s)
    #      ^ calls: pkg.text.clean


clean(" x ")
#^ calls: main.clean
