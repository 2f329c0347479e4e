// A C# solution laid out as .NET projects are (src/Acme/..., tests/Acme.Tests/...): a namespace
// spans files and folders, `using` imports a namespace, a file-scoped namespace, a record with
// positional properties, a partial class whose parts (two files) are one class with the
// members and bases of both (Audit, declared in the other part, called from this one),
// constructors chained with `: base(...)`, receivers typed by
// declarations, `var` locals and fields, `this`, interface dispatch to the implementation and
// virtual dispatch to an override, an extension method called on its receiver
// (order.IsFree()), a `using` alias naming a type (Mem); `System` and other libraries'
// names are external.
// exact: calls, imports, references, extends, implements
// path: src/Acme/Models/Order.cs
namespace Acme.Models
{
    public record Order(int Id, decimal Total);
               // ^ defines: Acme.Models.Order class
                         // ^ defines: Acme.Models.Order.Id property
                                     // ^ defines: Acme.Models.Order.Total property

    public interface IRepo
                  // ^ defines: Acme.Models.IRepo interface
    {
        void Save(Order order);
          // ^ defines: Acme.Models.IRepo.Save method
    }

    public static class OrderExtensions
                     // ^ defines: Acme.Models.OrderExtensions class
    {
        public static bool IsFree(this Order order) => order.Total == 0m;
                         // ^ defines: Acme.Models.OrderExtensions.IsFree method
    }
}
// path: src/Acme/Services/BaseService.cs
using Acme.Models;

namespace Acme.Services;

public abstract class BaseService
                   // ^ defines: Acme.Services.BaseService class
{
    protected readonly IRepo Repo;
                          // ^ defines: Acme.Services.BaseService.Repo variable

    protected BaseService(IRepo repo) { Repo = repo; }

    public virtual void Log(string message) { System.Console.WriteLine(message); }
                                           // ^ calls: <external>::System.Console.WriteLine (import)
                     // ^ defines: Acme.Services.BaseService.Log method
}
// path: src/Acme/Services/MemoryRepo.cs
using System.Collections.Generic;
   // ^ imports: <external>::System.Collections.Generic
using Acme.Models;
// ^ imports: Acme.Models.IRepo

namespace Acme.Services
{
    public class MemoryRepo : IRepo
              // ^ defines: Acme.Services.MemoryRepo class
                           // ^ implements: Acme.Models.IRepo
    {
        private readonly List<Order> _orders = new List<Order>();
                      // ^ calls: <external>::System.Collections.Generic.List (import)
                                  // ^ defines: Acme.Services.MemoryRepo._orders variable

        public void Save(Order order) { _orders.Add(order); }
                                     // ^ calls: <external>::System.Collections.Generic.List.Add (local-type)
                 // ^ defines: Acme.Services.MemoryRepo.Save method
    }
}
// path: src/Acme/Services/OrderService.Audit.cs
using Acme.Models;

namespace Acme.Services
{
    public partial class OrderService
                      // ^ defines: Acme.Services.OrderService class
    {
        private void Audit(Order order) { Log(order.ToString()); }
                                           // ^ calls: <external>::System.Object.ToString (local-type)
                                       // ^ calls: Acme.Services.BaseService.Log (inheritance)
                                       // ^ calls: Acme.Services.LoudService.Log (dispatch)
                  // ^ defines: Acme.Services.OrderService.Audit method
    }

    public class LoudService : OrderService
              // ^ defines: Acme.Services.LoudService class
                            // ^ extends: src/Acme/Services/OrderService.Audit.cs::OrderService
    {
        public LoudService(IRepo repo) : base(repo) { }
            // ^ calls: Acme.Services.OrderService.<init> (super)

        public override void Log(string message) { Console.WriteLine(message.ToUpper()); }
                                                // ^ calls: <external>::System.Console.WriteLine (import)
                          // ^ defines: Acme.Services.LoudService.Log method
                                                                  // ^ unresolved: ToUpper
    }
}
// path: src/Acme/Services/OrderService.cs
using System;
   // ^ imports: <external>::System
using Acme.Models;
// ^ imports: Acme.Models.Order

namespace Acme.Services
{
    public partial class OrderService : BaseService, IDisposable
                      // ^ defines: Acme.Services.OrderService class
                                     // ^ extends: Acme.Services.BaseService
                                                  // ^ implements: <external>::System.IDisposable
    {
        public int Count { get; private set; }
                // ^ defines: Acme.Services.OrderService.Count property

        public OrderService(IRepo repo) : base(repo) { }
            // ^ calls: Acme.Services.BaseService.<init> (super)

        public Order Place(int id)
                  // ^ defines: Acme.Services.OrderService.Place method
        {
            var order = new Order(id, 0m);
                         // ^ calls: Acme.Models.Order (import)
            Repo.Save(order);
         // ^ calls: Acme.Models.IRepo.Save (local-type)
         // ^ calls: Acme.Services.MemoryRepo.Save (dispatch)
            this.Log("placed");
         // ^ calls: Acme.Services.BaseService.Log (inheritance)
            Audit(order);
         // ^ calls: Acme.Services.OrderService.Audit (self)
            Count++;
            return order;
        }

        public void Dispose() { }
                 // ^ defines: Acme.Services.OrderService.Dispose method
    }
}
// path: tests/Acme.Tests/OrderServiceTests.cs
using Acme.Services;
// ^ imports: Acme.Services.MemoryRepo
// ^ imports: src/Acme/Services/OrderService.Audit.cs::OrderService
using Xunit;
   // ^ imports: <external>::Xunit
using Mem = Acme.Services.MemoryRepo;

namespace Acme.Tests
{
    public class OrderServiceTests
              // ^ defines: Acme.Tests.OrderServiceTests class
    {
        [Fact]
        public void PlaceSavesTheOrder()
        {
            var service = new OrderService(new MemoryRepo());
                                            // ^ calls: Acme.Services.MemoryRepo (import)
                           // ^ calls: Acme.Services.OrderService.<init> (constructor)
                           // ^ calls: src/Acme/Services/OrderService.Audit.cs::OrderService (import)
            var order = service.Place(7);
                     // ^ calls: Acme.Services.OrderService.Place (local-type)
            Assert.Equal(7, order.Id);
         // ^ calls: <external>::Xunit.Assert.Equal (import)
            Assert.False(order.IsFree());
         // ^ calls: <external>::Xunit.Assert.False (import)
                      // ^ calls: Acme.Models.OrderExtensions.IsFree (local-type)
        }

        [Fact]
        public void SavesThroughAnAlias()
        {
            new Mem().Save(null);
             // ^ calls: Acme.Services.MemoryRepo (import)
         // ^ calls: Acme.Services.MemoryRepo.Save (local-type)
        }
    }
}
