import Foundation
import LucidGenCore
import SwiftParser
import SwiftSyntax

/// Reads a SwiftData app's Swift sources into ``SwiftDataSources``: a syntax walk, nothing resolved (a name
/// stays as written, with the types it was written inside), so that what it reports is what the file says.
///
/// What SwiftData reads from a macro's arguments must be a literal here too (a `Schema.Version` of numbers, an
/// `originalName` string, a key path, a delete rule case): anything else is a ``SwiftDataSources/Problem`` at
/// its line, never a guess.
package enum SwiftDataSourceReader {
    /// A source file larger than this is refused (a generated file, not a model); 10,000-line model files
    /// are far below it.
    package static let fileLimit = 8 << 20

    /// The `.swift` files of `paths` (files or folders, searched recursively; hidden folders and `.build`
    /// skipped), sorted, each read once and parsed.
    package static func read(_ paths: [String]) throws -> SwiftDataSources {
        var files: [String] = []
        for path in paths {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                throw ReadError(message: "\(path): error: no such file or folder")
            }
            if !isFolder.boolValue {
                files.append(path)
                continue
            }
            var found: [String] = []
            let enumerator = FileManager.default.enumerator(atPath: path)
            while let relative = enumerator?.nextObject() as? String {
                let components = relative.split(separator: "/")
                if components.contains(where: { $0.hasPrefix(".") || $0 == "DerivedData" }) {
                    enumerator?.skipDescendants()
                    continue
                }
                if relative.hasSuffix(".swift") { found.append((path as NSString).appendingPathComponent(relative)) }
            }
            files += found.sorted()
        }
        // Paths that overlap (a folder and a folder inside it, a file passed twice) name one file once: read
        // twice, its declarations would be two of each.
        var seen: Set<String> = []
        files = files.filter { seen.insert(URL(fileURLWithPath: $0).standardizedFileURL.resolvingSymlinksInPath().path).inserted }
        var sources = SwiftDataSources()
        sources.files = files
        var walker = Walker()
        for (index, file) in files.enumerated() {
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: file))
            } catch {
                throw ReadError(message: "\(file): error: cannot read it (\(error.localizedDescription))")
            }
            if data.count > fileLimit {
                sources.problems.append(
                    .init(
                        place: .init(file: index, line: 1),
                        message: "the file has \(data.count) bytes, more than the \(fileLimit) a model file is read to: left unread"))
                continue
            }
            walker.read(String(decoding: data, as: UTF8.self), file: index, into: &sources)
        }
        walker.finish(into: &sources)
        return sources
    }

    package struct ReadError: Error, CustomStringConvertible {
        package var message: String
        package var description: String { message }
    }
}

/// The walk over every file; stages are collected first and attached to their plans at the end, since a
/// plan may name a stage declared after it or in another file.
private struct Walker {
    var stageDeclarations: [(name: String?, scope: [String], stage: SwiftDataSources.Stage)] = []
    var pendingPlans: [(plan: SwiftDataSources.Plan, stageItems: [StageItem])] = []

    enum StageItem {
        case named(String, SwiftDataSources.Place)
        case inline(SwiftDataSources.Stage)
    }

    mutating func read(_ text: String, file: Int, into sources: inout SwiftDataSources) {
        let tree = Parser.parse(source: text)
        let visitor = FileVisitor(file: file, converter: SourceLocationConverter(fileName: "", tree: tree))
        visitor.walk(tree)
        sources.schemas += visitor.schemas
        sources.models += visitor.models
        sources.typealiases += visitor.aliases
        sources.valueTypes += visitor.valueTypes
        sources.problems += visitor.problems
        stageDeclarations += visitor.stageDeclarations
        pendingPlans += visitor.plans
    }

    mutating func finish(into sources: inout SwiftDataSources) {
        for (plan, items) in pendingPlans {
            var plan = plan
            for item in items {
                switch item {
                case .inline(let stage): plan.stages.append(stage)
                case .named(let name, let place):
                    // The plan's own static lets first, then any declared elsewhere under that name.
                    let candidates = stageDeclarations.filter { $0.name == name }
                    if let found = candidates.first(where: { $0.scope == plan.scope + [plan.name] }) ?? candidates.first {
                        plan.stages.append(found.stage)
                    } else {
                        sources.problems.append(
                            .init(
                                place: place,
                                message:
                                    "the plan's stages name \(name), which is not a MigrationStage.custom or .lightweight written with literal arguments in these sources"
                            ))
                    }
                }
            }
            sources.plans.append(plan)
        }
    }
}

private final class FileVisitor: SyntaxVisitor {
    let file: Int
    let converter: SourceLocationConverter
    var scope: [String] = []
    var schemas: [SwiftDataSources.VersionedSchema] = []
    var models: [SwiftDataSources.Model] = []
    var aliases: [SwiftDataSources.Alias] = []
    var valueTypes: [SwiftDataSources.ValueType] = []
    var problems: [SwiftDataSources.Problem] = []
    var stageDeclarations: [(name: String?, scope: [String], stage: SwiftDataSources.Stage)] = []
    var plans: [(plan: SwiftDataSources.Plan, stageItems: [Walker.StageItem])] = []

    init(file: Int, converter: SourceLocationConverter) {
        self.file = file
        self.converter = converter
        super.init(viewMode: .sourceAccurate)
    }

    func place(_ node: some SyntaxProtocol) -> SwiftDataSources.Place {
        .init(file: file, line: node.startLocation(converter: converter, afterLeadingTrivia: true).line)
    }

    func problem(_ node: some SyntaxProtocol, _ message: String) {
        problems.append(.init(place: place(node), message: message))
    }

    // MARK: Scopes

    override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind {
        let inherits = Self.inherited(node.inheritanceClause)
        if Self.hasAttribute(node.attributes, "Model") {
            models.append(model(node, inherits: inherits))
        }
        scope.append(node.name.text)
        return .visitChildren
    }
    override func visitPost(_ node: ClassDeclSyntax) { scope.removeLast() }

    override func visit(_ node: EnumDeclSyntax) -> SyntaxVisitorContinueKind {
        typeDeclaration(
            node.name.text, kind: .enum, inherits: Self.inherited(node.inheritanceClause), members: node.memberBlock, node: node)
        scope.append(node.name.text)
        return .visitChildren
    }
    override func visitPost(_ node: EnumDeclSyntax) { scope.removeLast() }

    override func visit(_ node: StructDeclSyntax) -> SyntaxVisitorContinueKind {
        typeDeclaration(
            node.name.text, kind: .struct, inherits: Self.inherited(node.inheritanceClause), members: node.memberBlock, node: node)
        scope.append(node.name.text)
        return .visitChildren
    }
    override func visitPost(_ node: StructDeclSyntax) { scope.removeLast() }

    override func visit(_ node: ExtensionDeclSyntax) -> SyntaxVisitorContinueKind {
        // `extension SchemaV2 { @Model final class Item … }`: the models are SchemaV2's. An extension that adds
        // conformance (`extension Plan: SchemaMigrationPlan`) is read like the type's own declaration.
        let extended = node.extendedType.trimmedDescription.split(separator: ".").map(String.init)
        let inherits = Self.inherited(node.inheritanceClause)
        let saved = scope
        scope = extended.dropLast()
        if inherits.contains(where: Self.isConformance) {
            typeDeclaration(extended.last ?? "", kind: .enum, inherits: inherits, members: node.memberBlock, node: node, isExtension: true)
        }
        scope = saved + extended
        return .visitChildren
    }
    override func visitPost(_ node: ExtensionDeclSyntax) {
        scope.removeLast(node.extendedType.trimmedDescription.split(separator: ".").count)
    }

    override func visit(_ node: ProtocolDeclSyntax) -> SyntaxVisitorContinueKind { .skipChildren }
    override func visit(_ node: FunctionDeclSyntax) -> SyntaxVisitorContinueKind { .skipChildren }
    override func visit(_ node: InitializerDeclSyntax) -> SyntaxVisitorContinueKind { .skipChildren }

    override func visit(_ node: TypeAliasDeclSyntax) -> SyntaxVisitorContinueKind {
        aliases.append(.init(name: node.name.text, scope: scope, target: node.initializer.value.trimmedDescription, place: place(node)))
        return .skipChildren
    }

    /// `MigrationStage.custom(fromVersion:toVersion:willMigrate:didMigrate:)` and `.lightweight(…)` wherever
    /// they are written; the plan's `stages` list names them or holds them.
    override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        guard let stage = stage(node) else { return .visitChildren }
        var name: String?
        var parent = node.parent
        while let current = parent, name == nil {
            if let binding = current.as(PatternBindingSyntax.self) {
                name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text
                break
            }
            if current.is(CodeBlockItemSyntax.self) || current.is(MemberBlockItemSyntax.self) || current.is(ArrayElementSyntax.self) {
                break
            }
            parent = current.parent
        }
        var named = stage
        named.name = name
        stageDeclarations.append((name, scope, named))
        return .skipChildren
    }

    // MARK: Declarations

    static let conformances: Set<String> = ["VersionedSchema", "SchemaMigrationPlan"]
    static func isConformance(_ name: String) -> Bool {
        conformances.contains(name) || conformances.contains(String(name.split(separator: ".").last ?? ""))
    }

    func typeDeclaration(
        _ name: String, kind: SwiftDataSources.ValueType.Kind, inherits: [String], members: MemberBlockSyntax, node: some SyntaxProtocol,
        isExtension: Bool = false
    ) {
        let conforms = Set(inherits.map { String($0.split(separator: ".").last ?? "") })
        if conforms.contains("VersionedSchema") {
            schemas.append(schema(name, members: members, node: node))
        } else if conforms.contains("SchemaMigrationPlan") {
            plans.append(plan(name, members: members, node: node))
        } else if !isExtension {
            var value = SwiftDataSources.ValueType(name: name, scope: scope, kind: kind, inherits: inherits, place: place(node))
            for member in members.members {
                if let variable = member.decl.as(VariableDeclSyntax.self), !Self.isStatic(variable.modifiers) {
                    for binding in variable.bindings where Self.isStored(binding) {
                        guard let identifier = binding.pattern.as(IdentifierPatternSyntax.self) else { continue }
                        value.fields.append(
                            .init(
                                name: identifier.identifier.text, type: binding.typeAnnotation?.type.trimmedDescription,
                                place: place(binding)))
                    }
                }
                if let cases = member.decl.as(EnumCaseDeclSyntax.self) {
                    if cases.elements.contains(where: { $0.parameterClause != nil }) { value.hasAssociatedValues = true }
                    for element in cases.elements {
                        value.cases.append(.init(name: element.name.text, rawValue: element.rawValue?.value.trimmedDescription))
                    }
                }
            }
            valueTypes.append(value)
        }
    }

    /// The member `name` (`static let`/`static var`, stored or computed) and the expression that gives its value.
    func staticMember(_ name: String, in members: MemberBlockSyntax) -> (binding: PatternBindingSyntax, value: Syntax?)? {
        for member in members.members {
            guard let variable = member.decl.as(VariableDeclSyntax.self) else { continue }
            for binding in variable.bindings where binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text == name {
                if let value = binding.initializer?.value { return (binding, Syntax(value)) }
                if let accessors = binding.accessorBlock { return (binding, Self.returnedExpression(accessors)) }
                return (binding, nil)
            }
        }
        return nil
    }

    /// A getter's single expression (`{ [A.self] }`, `{ return … }`, `get { … }`).
    static func returnedExpression(_ block: AccessorBlockSyntax) -> Syntax? {
        var items: CodeBlockItemListSyntax?
        switch block.accessors {
        case .getter(let list): items = list
        case .accessors(let list): items = list.first { $0.accessorSpecifier.tokenKind == .keyword(.get) }?.body?.statements
        }
        guard let last = items?.last?.item else { return nil }
        if let returned = last.as(ReturnStmtSyntax.self) { return returned.expression.map(Syntax.init) }
        if let statement = last.as(ExpressionStmtSyntax.self) { return Syntax(statement.expression) }
        return Syntax(last)
    }

    func schema(_ name: String, members: MemberBlockSyntax, node: some SyntaxProtocol) -> SwiftDataSources.VersionedSchema {
        var version: [Int]?
        var versionPlace: SwiftDataSources.Place?
        if let member = staticMember("versionIdentifier", in: members) {
            versionPlace = place(member.binding)
            if let call = member.value?.as(FunctionCallExprSyntax.self),
                ["Schema.Version", "Version", ".init", "Schema.Version.init"].contains(call.calledExpression.trimmedDescription)
            {
                let numbers = call.arguments.map { Int($0.expression.trimmedDescription) }
                if numbers.count == 3, numbers.allSatisfy({ $0 != nil && $0! >= 0 }) { version = numbers.map { $0! } }
            }
            if version == nil {
                problem(
                    member.binding,
                    "\(name).versionIdentifier is not written as Schema.Version(major, minor, patch) with three non-negative integer literals (\(member.value?.trimmedDescription ?? "no value")): the version must be read from the source"
                )
            }
        } else {
            problem(node, "the VersionedSchema \(name) has no static versionIdentifier")
        }
        var references: [SwiftDataSources.TypeReference] = []
        if let member = staticMember("models", in: members) {
            references = typeList(member.value, what: "\(name).models", at: member.binding, inside: name)
        } else {
            problem(node, "the VersionedSchema \(name) has no static models")
        }
        return .init(
            name: name, scope: scope, place: place(node), version: version, versionPlace: versionPlace, models: references)
    }

    /// `[A.self, B.self]` as type references; anything else a problem.
    /// (`inside`: the type whose member the list is, so that its names resolve in it first.)
    func typeList(_ value: Syntax?, what: String, at node: some SyntaxProtocol, inside: String) -> [SwiftDataSources.TypeReference] {
        guard let array = value?.as(ArrayExprSyntax.self) else {
            problem(
                node, "\(what) is not written as an array literal of types ([Item.self, …]): \(value?.trimmedDescription ?? "no value")")
            return []
        }
        var references: [SwiftDataSources.TypeReference] = []
        for element in array.elements {
            let text = element.expression.trimmedDescription
            guard text.hasSuffix(".self"), text.count > 5 else {
                problem(element, "\(what) has \(text), which is not a type written as Name.self")
                continue
            }
            references.append(.init(name: String(text.dropLast(5)), scope: scope + [inside], place: place(element)))
        }
        return references
    }

    func plan(_ name: String, members: MemberBlockSyntax, node: some SyntaxProtocol) -> (SwiftDataSources.Plan, [Walker.StageItem]) {
        var schemas: [SwiftDataSources.TypeReference] = []
        if let member = staticMember("schemas", in: members) {
            schemas = typeList(member.value, what: "\(name).schemas", at: member.binding, inside: name)
        } else {
            problem(node, "the SchemaMigrationPlan \(name) has no static schemas")
        }
        var items: [Walker.StageItem] = []
        if let member = staticMember("stages", in: members) {
            if let array = member.value?.as(ArrayExprSyntax.self) {
                for element in array.elements {
                    if let call = element.expression.as(FunctionCallExprSyntax.self), let stage = stage(call) {
                        items.append(.inline(stage))
                    } else if let reference = element.expression.as(DeclReferenceExprSyntax.self) {
                        items.append(.named(reference.baseName.text, place(element)))
                    } else if let access = element.expression.as(MemberAccessExprSyntax.self) {
                        items.append(.named(access.declName.baseName.text, place(element)))
                    } else {
                        problem(
                            element,
                            "\(name).stages has \(element.expression.trimmedDescription), which is neither a stage nor a stage's name")
                    }
                }
            } else {
                problem(
                    member.binding, "\(name).stages is not written as an array literal: \(member.value?.trimmedDescription ?? "no value")")
            }
        }
        return (.init(name: name, scope: scope, place: place(node), schemas: schemas, stages: []), items)
    }

    func stage(_ call: FunctionCallExprSyntax) -> SwiftDataSources.Stage? {
        let callee = call.calledExpression.trimmedDescription
        let kind: SwiftDataSources.Stage.Kind
        switch callee {
        case "MigrationStage.custom", ".custom": kind = .custom
        case "MigrationStage.lightweight", ".lightweight": kind = .lightweight
        default: return nil
        }
        guard call.arguments.contains(where: { $0.label?.text == "fromVersion" }) else { return nil }
        func version(_ label: String) -> SwiftDataSources.TypeReference? {
            guard let argument = call.arguments.first(where: { $0.label?.text == label }) else { return nil }
            let text = argument.expression.trimmedDescription
            guard text.hasSuffix(".self"), text.count > 5 else {
                problem(argument, "the stage's \(label) is \(text), not a schema written as Name.self")
                return nil
            }
            return .init(name: String(text.dropLast(5)), scope: scope, place: place(argument))
        }
        var stage = SwiftDataSources.Stage(
            kind: kind, name: nil, from: version("fromVersion"), to: version("toVersion"), place: place(call))
        guard kind == .custom else { return stage }
        var unfilled = ["willMigrate", "didMigrate"]
        for argument in call.arguments {
            guard let label = argument.label?.text, unfilled.contains(label) else { continue }
            unfilled.removeAll { $0 == label }
            hook(label, argument.expression, into: &stage)
        }
        // A trailing closure takes the first hook not written with its label (Swift's forward scan).
        if let closure = call.trailingClosure, let label = unfilled.first {
            unfilled.removeFirst()
            hook(label, ExprSyntax(closure), into: &stage)
        }
        for extra in call.additionalTrailingClosures where unfilled.contains(extra.label.text) {
            hook(extra.label.text, ExprSyntax(extra.closure), into: &stage)
        }
        return stage
    }

    func hook(_ label: String, _ expression: ExprSyntax, into stage: inout SwiftDataSources.Stage) {
        if expression.is(NilLiteralExprSyntax.self) { return }
        let summary: String
        if let closure = expression.as(ClosureExprSyntax.self) {
            let lines = closure.statements.trimmedDescription.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            let first = lines.first { !$0.isEmpty && !$0.hasPrefix("//") } ?? ""
            summary =
                "a closure of \(closure.statements.count) statement\(closure.statements.count == 1 ? "" : "s")"
                + (first.isEmpty ? "" : ", starting `\(first.count > 80 ? String(first.prefix(77)) + "…" : first)`")
        } else {
            summary = "`\(expression.trimmedDescription)`"
        }
        let hook = SwiftDataSources.Hook(place: place(expression), summary: summary)
        if label == "willMigrate" { stage.willMigrate = hook } else { stage.didMigrate = hook }
    }

    // MARK: Models

    func model(_ node: ClassDeclSyntax, inherits: [String]) -> SwiftDataSources.Model {
        var model = SwiftDataSources.Model(
            name: node.name.text, scope: scope, place: place(node), inherits: inherits, properties: [], uniques: [], indexes: [])
        for member in node.memberBlock.members {
            if let macro = member.decl.as(MacroExpansionDeclSyntax.self) {
                let name = macro.macroName.text
                guard name == "Unique" || name == "Index" else { continue }
                for argument in macro.arguments {
                    guard let array = argument.expression.as(ArrayExprSyntax.self) else {
                        problem(argument, "#\(name)'s argument \(argument.expression.trimmedDescription) is not an array of key paths")
                        continue
                    }
                    var properties: [String] = []
                    for element in array.elements {
                        guard let path = Self.keyPath(element.expression) else {
                            problem(element, "#\(name) has \(element.expression.trimmedDescription), which is not a key path (\\.name)")
                            continue
                        }
                        properties.append(path.property)
                    }
                    let paths = SwiftDataSources.KeyPaths(properties: properties, place: place(argument))
                    if name == "Unique" { model.uniques.append(paths) } else { model.indexes.append(paths) }
                }
                continue
            }
            guard let variable = member.decl.as(VariableDeclSyntax.self), !Self.isStatic(variable.modifiers) else { continue }
            for binding in variable.bindings {
                guard Self.isStored(binding) else { continue }
                guard let identifier = binding.pattern.as(IdentifierPatternSyntax.self) else {
                    problem(
                        binding,
                        "a stored property written as a pattern (\(binding.pattern.trimmedDescription)): SwiftData's models name each property"
                    )
                    continue
                }
                var type = binding.typeAnnotation?.type.trimmedDescription
                if type == nil, variable.bindings.count > 1 {
                    // `var a, b: Int`: the type written last applies to those before it.
                    let later = variable.bindings.drop { $0.id != binding.id }
                    type = later.first { $0.typeAnnotation != nil }?.typeAnnotation?.type.trimmedDescription
                }
                var property = SwiftDataSources.Property(
                    name: identifier.identifier.text, place: place(binding), type: type,
                    initializer: binding.initializer?.value.trimmedDescription)
                attributes(variable.attributes, into: &property)
                model.properties.append(property)
            }
        }
        return model
    }

    func attributes(_ list: AttributeListSyntax, into property: inout SwiftDataSources.Property) {
        for element in list {
            guard case .attribute(let attribute) = element else { continue }
            let name = attribute.attributeName.trimmedDescription
            let arguments: LabeledExprListSyntax? =
                if case .argumentList(let list) = attribute.arguments { list } else { nil }
            switch name {
            case "Transient": property.transient = true
            case "Attribute":
                for argument in arguments ?? [] {
                    if argument.label?.text == "originalName" {
                        property.originalName = stringLiteral(argument, what: "@Attribute's originalName")
                    } else if argument.label == nil || argument.label?.text == "_" {
                        let text = argument.expression.trimmedDescription
                        if text.hasPrefix(".") {
                            property.attributeOptions.append(String(text.dropFirst()))
                        } else {
                            problem(argument, "@Attribute's option \(text) is not written as .option: it must be read from the source")
                        }
                    } else if argument.label?.text == "hashModifier" {
                        property.attributeOptions.append("hashModifier")
                    }
                }
            case "Relationship":
                var relationship = SwiftDataSources.RelationshipMacro()
                for argument in arguments ?? [] {
                    let text = argument.expression.trimmedDescription
                    switch argument.label?.text {
                    case "deleteRule":
                        if text.hasPrefix("."), text.dropFirst().allSatisfy({ $0.isLetter }) {
                            relationship.deleteRule = String(text.dropFirst())
                        } else if text.hasPrefix("Schema.Relationship.DeleteRule.") {
                            relationship.deleteRule = String(text.dropFirst("Schema.Relationship.DeleteRule.".count))
                        } else {
                            problem(
                                argument, "@Relationship's deleteRule \(text) is not a literal rule (.cascade, .nullify, .deny, .noAction)")
                        }
                    case "inverse":
                        if let path = Self.keyPath(argument.expression), let root = path.root {
                            relationship.inverse = root + "." + path.property
                        } else {
                            problem(argument, "@Relationship's inverse \(text) is not a key path with its type (\\Other.property)")
                        }
                    case "minimumModelCount", "maximumModelCount":
                        guard let count = Int(text) else {
                            problem(argument, "@Relationship's \(argument.label!.text) \(text) is not an integer literal")
                            continue
                        }
                        if argument.label?.text == "minimumModelCount" {
                            relationship.minimumModelCount = count
                        } else {
                            relationship.maximumModelCount = count
                        }
                    case "originalName": relationship.originalName = stringLiteral(argument, what: "@Relationship's originalName")
                    case nil, "_": relationship.options.append(text.hasPrefix(".") ? String(text.dropFirst()) : text)
                    default: break
                    }
                }
                property.relationship = relationship
            default: break
            }
        }
    }

    func stringLiteral(_ argument: LabeledExprSyntax, what: String) -> String? {
        if let literal = argument.expression.as(StringLiteralExprSyntax.self), literal.segments.count == 1,
            let segment = literal.segments.first?.as(StringSegmentSyntax.self)
        {
            return segment.content.text
        }
        problem(
            argument, "\(what) \(argument.expression.trimmedDescription) is not a string literal: the old name must be read from the source"
        )
        return nil
    }

    // MARK: Helpers

    static func keyPath(_ expression: ExprSyntax) -> (root: String?, property: String)? {
        guard expression.is(KeyPathExprSyntax.self) else { return nil }
        let text = expression.trimmedDescription.dropFirst() // the backslash
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 2, let last = parts.last, !last.isEmpty, last.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
            return nil
        }
        let root = parts.dropLast().joined(separator: ".")
        return (root.isEmpty ? nil : root, last)
    }

    static func inherited(_ clause: InheritanceClauseSyntax?) -> [String] {
        clause?.inheritedTypes.map { $0.type.trimmedDescription } ?? []
    }

    static func hasAttribute(_ list: AttributeListSyntax, _ name: String) -> Bool {
        list.contains { element in
            if case .attribute(let attribute) = element { return attribute.attributeName.trimmedDescription == name }
            return false
        }
    }

    static func isStatic(_ modifiers: DeclModifierListSyntax) -> Bool {
        modifiers.contains { $0.name.tokenKind == .keyword(.static) || $0.name.tokenKind == .keyword(.class) }
    }

    /// Without accessors, or with observers only (`didSet`): stored. A getter makes it computed.
    static func isStored(_ binding: PatternBindingSyntax) -> Bool {
        guard let block = binding.accessorBlock else { return true }
        guard case .accessors(let list) = block.accessors else { return false }
        return list.allSatisfy { [.keyword(.willSet), .keyword(.didSet)].contains($0.accessorSpecifier.tokenKind) }
    }
}
