@_spi(Generated) import LucidSchema

/// The Swift type names of a subtype whose shape changes over the versions (an enum's cases, a struct's
/// members): the versions whose shape is the newest's take the plain name (`AircraftCategory`), every
/// other distinct shape one type named after the first version it held at (`AircraftCategory_1_0`), like
/// record types. Only distinct shapes make types.
struct VersionedTypeNames<Shape: Hashable> {
    struct Older {
        var typeName: String
        var shape: Shape
        /// The first version it held at.
        var first: SchemaVersion
        /// Every version whose records use it.
        var versions: [SchemaVersion]
    }

    /// Version → type name.
    private(set) var names: [SchemaVersion: String] = [:]
    /// The older types, oldest first.
    private(set) var older: [Older] = []

    init(plainName: String, versions: [SchemaVersion], shape: (SchemaVersion) -> Shape) {
        guard let newest = versions.last else { return }
        let newestShape = shape(newest)
        var positions: [Shape: Int] = [:]
        for version in versions {
            let current = shape(version)
            if current == newestShape {
                names[version] = plainName
                continue
            }
            let position =
                positions[current]
                ?? {
                    older.append(Older(typeName: "\(plainName)_\(version.identifierSuffix)", shape: current, first: version, versions: []))
                    positions[current] = older.count - 1
                    return older.count - 1
                }()
            older[position].versions.append(version)
            names[version] = older[position].typeName
        }
    }
}
