// The schemas of `discord-api-spec/zod` the fake Discord checks requests with. The package ships
// them as JavaScript only (its types entry is the .js file), so the ones used are declared here.
declare module 'discord-api-spec/zod' {
  import type { ZodMiniType } from 'zod/mini';

  export const ApplicationCommandAutocompleteCallbackRequestSchema: ZodMiniType;
  export const ApplicationCommandCreateRequestSchema: ZodMiniType;
  export const ApplicationCommandPatchRequestPartialSchema: ZodMiniType;
  export const ApplicationCommandUpdateRequestSchema: ZodMiniType;
  export const CreateMessageInteractionCallbackRequestSchema: ZodMiniType;
  export const CreatePrivateChannelRequestSchema: ZodMiniType;
  export const IncomingWebhookRequestPartialSchema: ZodMiniType;
  export const IncomingWebhookUpdateRequestPartialSchema: ZodMiniType;
  export const MessageCreateRequestSchema: ZodMiniType;
  export const MessageEditRequestPartialSchema: ZodMiniType;
  export const ModalInteractionCallbackRequestSchema: ZodMiniType;
  export const PongInteractionCallbackRequestSchema: ZodMiniType;
  export const SnowflakeTypeSchema: ZodMiniType;
  export const UpdateMessageInteractionCallbackRequestSchema: ZodMiniType;
}
