# about: a function taken out of **kwargs by key and called
# path: main.py
def target():
    pass


def run(**kwargs):
    return kwargs["cb"]()
    #      ^ calls: main.target


run(cb=target)
#^ calls: main.run
