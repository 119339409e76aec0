// Every command the bot registers and answers.
import type { Command } from '../src/bot/command.js';
import { alter } from './alter.js';
import { front } from './front.js';
import { help } from './help.js';
import { link } from './link.js';
import { system } from './system.js';
import { unlink } from './unlink.js';
import { viewSystem } from './view-system.js';

export const COMMANDS: readonly Command[] = [link, unlink, system, alter, front, help, viewSystem];
