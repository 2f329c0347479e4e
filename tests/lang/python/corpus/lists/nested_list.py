# about: a function in a list inside a list, called after two subscripts
# path: main.py
def target():
    pass


table = [[target]]
table[0][0]()
#^ calls: main.target
