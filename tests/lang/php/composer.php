// A PHP package laid out as Composer projects are (src/ by PSR-4, tests/): a namespace spans
// files, `use` imports a class (an alias too), a namespace's function is found by a plain
// call, PHP's own functions are builtin; `new A` runs the constructor (promoted properties
// are properties), `$this->` and `self::` reach the class and the traits it uses,
// `$x->m()` follows the type `$x` was assigned or declared (a `: static` result is the
// class), an inherited method is found on its parent, and a library's classes are external.
// exact: calls, imports, extends, implements
// expect: calls.builtin = 1
// path: composer.json
{"autoload": {"psr-4": {"App\\": "src/"}}}
// path: src/Models/Model.php
<?php
namespace App\Models;

abstract class Model
            // ^ defines: App.Models.Model class
{
    public function save(): bool
                 // ^ defines: App.Models.Model.save method
    {
        return persist($this);
            // ^ calls: App.Models.persist (scope)
    }
}

function persist(Model $m): bool
      // ^ defines: App.Models.persist function
{
    return is_object($m);
}
// path: src/Models/User.php
<?php
namespace App\Models;

class User extends Model
   // ^ defines: App.Models.User class
                // ^ extends: App.Models.Model
{
    public function __construct(public string $name) {}
                 // ^ defines: App.Models.User.__construct method

    public static function find(int $id): User
                        // ^ defines: App.Models.User.find method
    {
        return new User("u$id");
                // ^ calls: App.Models.User (scope)
                // ^ calls: App.Models.User.__construct (constructor)
    }
}
// path: src/Services/UserService.php
<?php
namespace App\Services;

use App\Models\User;
            // ^ imports: App.Models.User
use App\Contracts\Greeter as GreeterContract;
               // ^ imports: <external>::App.Contracts.Greeter

trait Logs
   // ^ defines: App.Services.Logs trait
{
    public function log(string $m): void { echo $m; }
                 // ^ defines: App.Services.Logs.log method
}

interface Greeter
       // ^ defines: App.Services.Greeter interface
{
    public function greet(string $name): string;
                 // ^ defines: App.Services.Greeter.greet method
}

final class UserService implements Greeter
         // ^ defines: App.Services.UserService class
                                // ^ implements: App.Services.Greeter
// ^ implements: App.Services.Logs
{
    use Logs;

    private User $current;

    public function greet(string $name): string
                 // ^ defines: App.Services.UserService.greet method
    {
        $u = new User($name);
              // ^ calls: App.Models.User (import)
              // ^ calls: App.Models.User.__construct (constructor)
        $u->save();
         // ^ calls: App.Models.Model.save (local-type)
        $this->log("hi");
            // ^ calls: App.Services.Logs.log (inheritance)
        self::make();
     // ^ calls: App.Services.UserService.make (self)
        $this->current->save();
        return User::find(1)->name;
            // ^ calls: App.Models.User.find (import)
    }

    public static function make(): static
                        // ^ defines: App.Services.UserService.make method
    {
        return new static();
                // ^ calls: App.Services.UserService (scope)
    }
}
// path: tests/UserServiceTest.php
<?php
namespace Tests;

use App\Services\UserService;
              // ^ imports: App.Services.UserService
use PHPUnit\Framework\TestCase;
                   // ^ imports: <external>::PHPUnit.Framework.TestCase

class UserServiceTest extends TestCase
   // ^ defines: Tests.UserServiceTest class
                           // ^ extends: <external>::PHPUnit.Framework.TestCase
{
    public function testGreet(): void
                 // ^ defines: Tests.UserServiceTest.testGreet method
    {
        $service = UserService::make();
                // ^ calls: App.Services.UserService.make (import)
        $service->greet("a");
               // ^ calls: App.Services.UserService.greet (local-type)
        $this->assertTrue(true);
            // ^ calls: <external>::PHPUnit.Framework.TestCase.assertTrue (inheritance)
    }
}
