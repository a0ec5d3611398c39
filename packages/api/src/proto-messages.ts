/** One field of a proto3 message: its name as the .proto spells it, number and type. */
export interface ProtoMessageField {
  readonly name: string;
  readonly number: number;
  /** A scalar (`string`, `bool`, `int64`, `double`...) or a message of the same file. */
  readonly type: string;
  readonly repeated?: true;
  /** A member of the message's oneof. */
  readonly oneof?: true;
}

/** The messages of one .proto file, by name, each its fields in declaration order. */
export type ProtoMessages = Readonly<Record<string, readonly ProtoMessageField[]>>;
