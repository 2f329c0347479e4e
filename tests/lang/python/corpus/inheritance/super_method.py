# about: super().m() calls the next class's m in the MRO
# path: app.py
class Base:
    def save(self):
        return "base"


class Child(Base):
    def save(self):
        return "child+" + super().save()
        #                         ^ calls: app.Base.save


Child().save()
#^ calls: app.Child
#       ^ calls: app.Child.save
