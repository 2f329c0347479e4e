# about: an import inside a method binds the module there; its class's method is called
# path: models.py
class Model:
    def save(self):
        return 1
# path: main.py
class View:
    def post(self):
        import models

        return models.Model().save()
        #             ^ calls: models.Model
        #                     ^ calls: models.Model.save


View().post()
#^ calls: main.View
#      ^ calls: main.View.post
