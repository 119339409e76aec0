// Every command the bot registers and answers.
import type { Command } from '../src/bot/command.js';
import { alter } from './alter.js';
import { autoproxy } from './autoproxy.js';
import { deleteMessage } from './delete-message.js';
import { editMessage } from './edit-message.js';
import { exportCommand } from './export.js';
import { field } from './field.js';
import { front } from './front.js';
import { help } from './help.js';
import { importCommand } from './import.js';
import { link } from './link.js';
import { messageInfo } from './message-info.js';
import { proxy } from './proxy.js';
import { reproxy } from './reproxy.js';
import { reproxyMessage } from './reproxy-message.js';
import { server } from './server.js';
import { system } from './system.js';
import { tag } from './tag.js';
import { unlink } from './unlink.js';
import { viewSystem } from './view-system.js';

export const COMMANDS: readonly Command[] = [
  link,
  unlink,
  system,
  alter,
  front,
  proxy,
  autoproxy,
  reproxy,
  help,
  viewSystem,
  messageInfo,
  editMessage,
  deleteMessage,
  reproxyMessage,
  tag,
  field,
  importCommand,
  exportCommand,
  server,
];
