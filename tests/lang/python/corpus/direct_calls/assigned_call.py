# about: a function assigned to a name is called through the name
# path: main.py
def target():
    pass


alias = target
alias()
#^ calls: main.target
