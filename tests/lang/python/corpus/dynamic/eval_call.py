# about: eval() of a literal string that calls a function: the call runs from the caller
# path: main.py
def target():
    return 1


eval("target()")
#^ calls: main.target
