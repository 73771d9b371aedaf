/**
 * The Server Card's JSON Schema (draft 2020-12), vendored as a test fixture: the extension's `schema.json` of
 * https://github.com/modelcontextprotocol/experimental-ext-server-card at commit
 * 8924e08682b4a936e6464b57845ec2ff17dc8776 (main, 2026-07-24; the file last changed in 92999cb3), Apache-2.0.
 * Its prose descriptions are left out; every validation keyword is as published. The draft is still moving: vendor
 * it again when the extension publishes a new schema, and see whether the card still validates.
 */
export const SERVER_CARD_SCHEMA_SOURCE =
  "https://github.com/modelcontextprotocol/experimental-ext-server-card/blob/8924e08682b4a936e6464b57845ec2ff17dc8776/schema.json";

export const SERVER_CARD_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $defs: {
    Icon: {
      properties: {
        mimeType: {
          type: "string",
        },
        sizes: {
          items: {
            type: "string",
          },
          type: "array",
        },
        src: {
          format: "uri",
          type: "string",
        },
        theme: {
          enum: ["dark", "light"],
          type: "string",
        },
      },
      required: ["src"],
      type: "object",
    },
    Input: {
      properties: {
        choices: {
          items: {
            type: "string",
          },
          type: "array",
        },
        default: {
          type: "string",
        },
        description: {
          type: "string",
        },
        format: {
          enum: ["boolean", "filepath", "number", "string"],
          type: "string",
        },
        isRequired: {
          type: "boolean",
        },
        isSecret: {
          type: "boolean",
        },
        placeholder: {
          type: "string",
        },
        value: {
          type: "string",
        },
      },
      type: "object",
    },
    KeyValueInput: {
      properties: {
        choices: {
          items: {
            type: "string",
          },
          type: "array",
        },
        default: {
          type: "string",
        },
        description: {
          type: "string",
        },
        format: {
          enum: ["boolean", "filepath", "number", "string"],
          type: "string",
        },
        isRequired: {
          type: "boolean",
        },
        isSecret: {
          type: "boolean",
        },
        name: {
          type: "string",
        },
        placeholder: {
          type: "string",
        },
        value: {
          type: "string",
        },
        variables: {
          additionalProperties: {
            $ref: "#/$defs/Input",
          },
          type: "object",
        },
      },
      required: ["name"],
      type: "object",
    },
    MetaObject: {
      additionalProperties: {},
      type: "object",
    },
    Remote: {
      properties: {
        headers: {
          items: {
            $ref: "#/$defs/KeyValueInput",
          },
          type: "array",
        },
        supportedProtocolVersions: {
          items: {
            type: "string",
          },
          type: "array",
        },
        type: {
          enum: ["sse", "streamable-http"],
          type: "string",
        },
        url: {
          pattern: "^(https?://[^\\s]+|\\{[a-zA-Z_][a-zA-Z0-9_]*\\}[^\\s]*)$",
          type: "string",
        },
        variables: {
          additionalProperties: {
            $ref: "#/$defs/Input",
          },
          type: "object",
        },
      },
      required: ["type", "url"],
      type: "object",
    },
    Repository: {
      properties: {
        id: {
          type: "string",
        },
        source: {
          type: "string",
        },
        subfolder: {
          type: "string",
        },
        url: {
          format: "uri",
          type: "string",
        },
      },
      required: ["source", "url"],
      type: "object",
    },
    ServerCard: {
      properties: {
        $schema: {
          format: "uri",
          pattern: "^https://static\\.modelcontextprotocol\\.io/schemas/v1/server-card\\.schema\\.json$",
          type: "string",
        },
        _meta: {
          $ref: "#/$defs/MetaObject",
        },
        description: {
          maxLength: 100,
          minLength: 1,
          type: "string",
        },
        icons: {
          items: {
            $ref: "#/$defs/Icon",
          },
          type: "array",
        },
        name: {
          maxLength: 200,
          minLength: 3,
          pattern: "^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$",
          type: "string",
        },
        remotes: {
          items: {
            $ref: "#/$defs/Remote",
          },
          type: "array",
        },
        repository: {
          $ref: "#/$defs/Repository",
        },
        title: {
          maxLength: 100,
          minLength: 1,
          type: "string",
        },
        version: {
          maxLength: 255,
          type: "string",
        },
        websiteUrl: {
          format: "uri",
          type: "string",
        },
      },
      required: ["$schema", "description", "name", "version"],
      type: "object",
    },
  },
};
