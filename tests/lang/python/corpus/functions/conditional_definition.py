# about: a function defined in both branches of an if: a call may reach either definition
# path: main.py
import sys

if sys.maxsize > 2:

    def pick():
        return 1

else:

    def pick():
        return 2


pick()
#^ calls: main.pick
#^ calls: main.pick#2 [static]
