# A Ruby gem laid out as gems are (lib/shop.rb, lib/shop/*.rb, test/): require_relative and
# require (lib/ on the load path) are file imports, a gem's require is external; constants
# live in one namespace (a module reopened in every file is one module, a class reopened in
# another file keeps the methods of both); `include` is IMPLEMENTS and the mixin's methods
# are found on the class; `Foo.new` and a class method's `new` run `initialize`; `super`
# reaches the superclass's method; receivers typed by `x = Foo.new` and `@x = Foo.new` (an
# instance variable is the class's field `@x`); Kernel's methods are external.
# exact: calls, imports, references, extends, implements
# path: lib/shop/base.rb
module Shop
     # ^ defines: Shop module
  class Base
      # ^ defines: Shop.Base class
    def initialize
      # ^ defines: Shop.Base.initialize method
      @created = true
    end
  end

  class Repo
      # ^ defines: Shop.Repo class
    def save(order)
      # ^ defines: Shop.Repo.save method
      order
    end
  end
end
# path: lib/shop/cart.rb
require_relative "base"
# ^ imports: lib/shop/base.rb::
require_relative "order"
# ^ imports: lib/shop/order.rb::

module Shop
     # ^ defines: Shop module
  module Loggable
       # ^ defines: Shop.Loggable module
    def log(message)
      # ^ defines: Shop.Loggable.log method
      puts message
    # ^ calls: <external>::ruby.Object.puts (inheritance)
    end
  end

  class Cart < Base
      # ^ defines: Shop.Cart class
             # ^ extends: Shop.Base
# ^ implements: Shop.Loggable
    include Loggable

    def initialize(repo)
      # ^ defines: Shop.Cart.initialize method
      super()
    # ^ calls: Shop.Base.initialize (super)
      @repo = repo
      @items = []
      @last = Order.new(nil)
            # ^ calls: Shop.Order.initialize (constructor)
            # ^ calls: lib/shop/order.rb::Shop.Order (scope)
    end

    def add(item)
      # ^ defines: Shop.Cart.add method
      @items << item
      log("added")
    # ^ calls: Shop.Loggable.log (inheritance)
      order = Order.new(item)
            # ^ calls: Shop.Order.initialize (constructor)
            # ^ calls: lib/shop/order.rb::Shop.Order (scope)
      order.place
    # ^ calls: Shop.Order.place (local-type)
      self.total
    # ^ calls: Shop.Cart.total (self)
    end

    def total
      # ^ defines: Shop.Cart.total method
      @last.place
     # ^ calls: Shop.Order.place (local-type)
     # v unresolved: size
      @items.size
    end

    def self.build
      # ^ defines: Shop.Cart.build method
      new(Repo.new)
    # ^ calls: Shop.Cart (scope)
    # ^ calls: Shop.Cart.initialize (constructor)
        # ^ calls: Shop.Repo (scope)
    end
  end
end
# path: lib/shop/order.rb
module Shop
     # ^ defines: Shop module
  class Order
      # ^ defines: Shop.Order class
    def initialize(item)
      # ^ defines: Shop.Order.initialize method
      @item = item
    end

    def place
      # ^ defines: Shop.Order.place method
      format_total(1)
    # ^ calls: format_total (scope)
    end
  end
end

def format_total(n)
  # ^ defines: format_total function
  n.to_s
# ^ unresolved: to_s
end
# path: lib/shop/order_ext.rb
module Shop
     # ^ defines: Shop module
  class Order
      # ^ defines: Shop.Order class
    def cancel
      # ^ defines: Shop.Order.cancel method
      place
    end
  end
end
# path: lib/shop.rb
require_relative "shop/cart"
# ^ imports: lib/shop/cart.rb::
require "json"
       # ^ imports: <external>::json

module Shop
     # ^ defines: Shop module
  VERSION = "1.0"

  def self.version
    # ^ defines: Shop.version method
    VERSION
  end
end
# path: test/test_cart.rb
require "minitest/autorun"
                # ^ imports: <external>::minitest/autorun
require "shop"
# ^ imports: lib/shop.rb::

class TestCart < Minitest::Test
    # ^ defines: TestCart class
  def test_add
    # ^ defines: TestCart.test_add method
    cart = Shop::Cart.new(Shop::Repo.new)
         # ^ calls: Shop.Cart (scope)
         # ^ calls: Shop.Cart.initialize (constructor)
                        # ^ calls: Shop.Repo (scope)
    cart.add(1)
  # ^ calls: Shop.Cart.add (local-type)
    Shop::Cart.build
  # ^ calls: Shop.Cart.build (scope)
  end
end
