/// The version of lucidgen: of the generator (`lucidgen --version`) and of the LucidRuntime it generates for,
/// which ship in one package.
///
/// The prebuilt plugins (`lucidgen-plugins/`) read this line from the lucidgen package a consumer compiles
/// against and refuse a `lucidgen` binary of another version: keep the declaration on one line, the version a
/// string literal.
package enum LucidGenVersion {
    package static let current = "0.2.0"
}
