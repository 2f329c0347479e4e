# about: self in a mixin calls a method the class combining it provides
# path: app.py
class JsonMixin:
    def to_json(self):
        return str(self.as_dict())
        #               ^ calls: app.User.as_dict


class User(JsonMixin):
    def as_dict(self):
        return {"name": "ann"}


User().to_json()
#^ calls: app.User
#      ^ calls: app.JsonMixin.to_json
