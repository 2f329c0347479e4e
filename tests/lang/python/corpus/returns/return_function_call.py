# about: a function returning another function: the result is called after assignment
# path: main.py
def target():
    pass


def get():
    return target


fn = get()
#    ^ calls: main.get
fn()
#^ calls: main.target
