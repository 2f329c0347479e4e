# about: creating a class calls __set_name__ of the descriptors in its body (asserted at the bases)
# path: app.py
class Field:
    def __set_name__(self, owner, name):
        self.name = name


class Base:
    pass


class Model(Base):
#           ^ calls: app.Field.__set_name__
    title = Field()
    #       ^ calls: app.Field
