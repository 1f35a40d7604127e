import { Type, type Static } from 'typebox';
import { dataMapField, messageBodyFields, messageDtoFields } from '../messages/schemas.js';
import { nullable, ref, StringMap } from '../schemas.js';

export const FcmDataMessageBody = Type.Object({ ...messageBodyFields, dataMap: dataMapField }, { additionalProperties: false });
export const FcmDataMessageDto = Type.Object({ ...messageDtoFields, dataMap: nullable(StringMap) });

export const FcmDataMessageDtoRef = ref<typeof FcmDataMessageDto>('FcmDataMessageDto');
export const FcmDataMessagesOut = Type.Object({ dataMessages: Type.Array(FcmDataMessageDtoRef) });
/** The same list as JSON text (PostgreSQL writes a user's list): one schema for the document, a string for the handler. */
export const FcmDataMessagesText = Type.Unsafe<string>(FcmDataMessagesOut);
export const FcmDataMessagesIn = Type.Object({
  dataMessages: Type.Array(FcmDataMessageBody, { maxItems: 200 }),
}, { additionalProperties: false });

export type FcmDataMessageBodyT = Static<typeof FcmDataMessageBody>;
export type FcmDataMessageDtoT = Static<typeof FcmDataMessageDto>;
