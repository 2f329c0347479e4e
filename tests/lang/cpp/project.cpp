// A C++ project laid out as C++ projects are: a namespace's classes declared in a header under
// include/, their methods defined outside the class in a .cpp (`double Circle::area() const`),
// a test under tests/. Calls through receivers of evident type (a declared local, `new`, a
// parameter, `this`, a static call's declared result) reach the method that runs; a virtual
// call also reaches the overrides below the receiver's type (dispatch); constructions reach
// the class and its constructor; `using namespace` and namespace-qualified names resolve; a
// `.h` holding C++ is read as C++; `std::` is a library's.
// exact: calls, imports, references, extends, implements
// path: include/legacy.h
#ifndef LEGACY_H
#define LEGACY_H
namespace legacy {
       // ^ defines: legacy namespace
inline int twice(int x) { return 2 * x; }
        // ^ defines: legacy::twice function
}
#endif
// path: include/shapes/shape.hpp
#pragma once
#include <string>
       // ^ imports: <external>::string

namespace geo {
       // ^ defines: geo namespace

class Shape {
   // ^ defines: geo::Shape class
public:
    virtual ~Shape();
    virtual double area() const;
                // ^ defines: geo::Shape::area method
    void describe();
      // ^ defines: geo::Shape::describe method
    static Shape *unit();
               // ^ defines: geo::Shape::unit method
};

class Circle : public Shape {
   // ^ defines: geo::Circle class
                   // ^ extends: geo::Shape
public:
    explicit Circle(double r);
          // ^ defines: geo::Circle::Circle constructor
    double area() const override;
        // ^ defines: geo::Circle::area method
    double radius() const { return r_; }
        // ^ defines: geo::Circle::radius method
private:
    double r_;
        // ^ defines: geo::Circle::r_ variable
};

double total(Shape &s);

}  // namespace geo
// path: src/main.cpp
#include <vector>
       // ^ imports: <external>::vector
#include "shapes/shape.hpp"
              // ^ imports: include/shapes/shape.hpp
#include "legacy.h"
       // ^ imports: include/legacy.h

using namespace geo;

static int helper(int x) { return x; }
        // ^ defines: helper function

int main() {
 // ^ defines: main function
    geo::Circle c(2.0);
 // ^ calls: geo::Circle (import)
 // ^ calls: src/shape.cpp::geo.Circle.Circle (constructor)
 // ^ references: geo::Circle (import)
    c.area();
 // ^ calls: src/shape.cpp::geo.Circle.area (local-type)
    c.describe();
 // ^ calls: src/shape.cpp::geo.Shape.describe (local-type)
    Circle *p = new Circle(1.0);
    p->radius();
    // ^ calls: geo::Circle::radius (local-type)
    total(*p);
 // ^ calls: geo::total (import)
    Shape *u = Shape::unit();
            // ^ calls: src/shape.cpp::geo.Shape.unit (import)
 // ^ references: geo::Shape (import)
    u->area();
    // ^ calls: src/shape.cpp::geo.Shape.area (local-type)
    std::vector<int> v;
    v.push_back(helper(1));
 // ^ calls: <external>::std.vector.push_back (local-type)
             // ^ calls: helper (scope)
    legacy::twice(3);
 // ^ calls: legacy::twice (import)
    return 0;
}
// path: src/shape.cpp
#include "shapes/shape.hpp"
              // ^ imports: include/shapes/shape.hpp
#include <cstdio>
       // ^ imports: <external>::cstdio

namespace geo {
       // ^ defines: geo namespace

Shape::~Shape() {}

double Shape::area() const { return 0; }
//            ^ defines: geo::Shape::area method

void Shape::describe() {
//          ^ defines: geo::Shape::describe method
    std::printf("%f\n", area());
 // ^ calls: <external>::std.printf (import)
                     // ^ calls: src/shape.cpp::geo.Shape.area (self)
}

Shape *Shape::unit() { return new Circle(1.0); }
                               // ^ calls: geo::Circle (import)
                               // ^ calls: src/shape.cpp::geo.Circle.Circle (constructor)
//            ^ defines: geo::Shape::unit method
                               // ^ references: geo::Circle (import)
// ^ references: geo::Shape (import)

Circle::Circle(double r) : r_(r) {}
//      ^ defines: geo::Circle::Circle constructor

double Circle::area() const { return 3.14 * radius() * r_; }
                                         // ^ calls: geo::Circle::radius (self)
//             ^ defines: geo::Circle::area method

double total(Shape &s) {
    // ^ defines: geo::total function
          // ^ references: geo::Shape (import)
    return s.area();
        // ^ calls: src/shape.cpp::geo.Circle.area (dispatch)
        // ^ calls: src/shape.cpp::geo.Shape.area (local-type)
}

}  // namespace geo
// path: tests/shape_test.cpp
#include "shapes/shape.hpp"
              // ^ imports: include/shapes/shape.hpp

void test_circle_area() {
  // ^ defines: test_circle_area function
    geo::Circle c(1.0);
 // ^ calls: geo::Circle (import)
 // ^ calls: src/shape.cpp::geo.Circle.Circle (constructor)
    c.area();
 // ^ calls: src/shape.cpp::geo.Circle.area (local-type)
}
