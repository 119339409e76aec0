// Frozen: the schema as first released. Never edit a migration that has shipped; add a new one.
// Migrations operate on an untyped Kysely because the app's types describe the *latest* schema.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { sql, type Kysely, type ColumnDefinitionBuilder, PostgresAdapter } from 'kysely';

type Db = Kysely<any>;

const isPostgres = (db: Db) => db.getExecutor().adapter instanceof PostgresAdapter;

/** A surrogate key that is a safe integer and is never reused, even after deletes. */
function addId(db: Db) {
  return isPostgres(db)
    ? (c: ColumnDefinitionBuilder) => c.primaryKey().generatedByDefaultAsIdentity()
    : (c: ColumnDefinitionBuilder) => c.primaryKey().autoIncrement();
}

export async function up(db: Db): Promise<void> {
  const idType = isPostgres(db) ? 'bigint' : 'integer';
  const id = addId(db);

  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('username', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_sign_in_at', 'bigint')
    .execute();

  await db.schema
    .createTable('systems')
    .addColumn('id', idType, id)
    .addColumn('user_id', 'text', (c) => c.notNull().unique().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('display_tag', 'text')
    .addColumn('display_tag_map', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('description', 'text')
    .addColumn('avatar', 'text')
    .addColumn('banner', 'text')
    .addColumn('pronouns', 'text')
    .addColumn('nickname_format', 'text', (c) => c.notNull().defaultTo('@%username%'))
    .addColumn('operation_dm', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('latch_expiration', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('public', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('flags', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('disabled_guilds', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('system_sub_accounts')
    .addColumn('user_id', 'text', (c) => c.primaryKey())
    .addColumn('system_id', idType, (c) => c.notNull().references('systems.id').onDelete('cascade'))
    .execute();
  await db.schema.createIndex('system_sub_accounts_system').on('system_sub_accounts').column('system_id').execute();

  await db.schema
    .createTable('alters')
    .addColumn('id', idType, id)
    .addColumn('system_id', idType, (c) => c.notNull().references('systems.id').onDelete('cascade'))
    .addColumn('username', 'text', (c) => c.notNull())
    .addColumn('display_name', 'text', (c) => c.notNull())
    .addColumn('name_map', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('color', 'text')
    .addColumn('description', 'text')
    .addColumn('pronouns', 'text')
    .addColumn('avatar_url', 'text')
    .addColumn('avatar_url_map', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('webhook_avatar_url', 'text')
    .addColumn('banner', 'text')
    .addColumn('alter_mode', 'text', (c) => c.notNull().defaultTo('webhook'))
    .addColumn('proxy_tags', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('public', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('flags', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('message_count', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('last_message_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('alters_system_id').on('alters').columns(['system_id', 'id']).execute();
  // Usernames are unique per system regardless of case; the database, not a read-then-write,
  // decides the winner of concurrent creates.
  await sql`create unique index alters_system_username on alters (system_id, lower(username))`.execute(db);

  await db.schema
    .createTable('tags')
    .addColumn('id', idType, id)
    .addColumn('system_id', idType, (c) => c.notNull().references('systems.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('tags_system').on('tags').columns(['system_id', 'id']).execute();

  await db.schema
    .createTable('alter_tags')
    .addColumn('alter_id', idType, (c) => c.notNull().references('alters.id').onDelete('cascade'))
    .addColumn('tag_id', idType, (c) => c.notNull().references('tags.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('alter_tags_pk', ['alter_id', 'tag_id'])
    .execute();
  await db.schema.createIndex('alter_tags_tag').on('alter_tags').column('tag_id').execute();

  await db.schema
    .createTable('oauth_clients')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('secret_hash', 'text')
    .addColumn('redirect_uris', 'text', (c) => c.notNull())
    .addColumn('grant_types', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('first_party', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('secret_rotated_at', 'bigint')
    .execute();

  await db.schema
    .createTable('alter_fields')
    .addColumn('alter_id', idType, (c) => c.notNull().references('alters.id').onDelete('cascade'))
    .addColumn('client_id', 'text', (c) => c.notNull().references('oauth_clients.id').onDelete('cascade'))
    .addColumn('system_id', idType, (c) => c.notNull().references('systems.id').onDelete('cascade'))
    .addColumn('value', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('alter_fields_pk', ['alter_id', 'client_id'])
    .execute();
  await db.schema
    .createIndex('alter_fields_lookup')
    .on('alter_fields')
    .columns(['system_id', 'client_id', 'value'])
    .execute();

  await db.schema
    .createTable('autoproxy')
    .addColumn('system_id', idType, (c) => c.notNull().references('systems.id').onDelete('cascade'))
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('alter_id', idType, (c) => c.references('alters.id').onDelete('set null'))
    .addColumn('last_latch_at', 'bigint')
    .addPrimaryKeyConstraint('autoproxy_pk', ['system_id', 'scope'])
    .execute();

  await db.schema
    .createTable('front_records')
    .addColumn('id', idType, id)
    .addColumn('system_id', idType, (c) => c.notNull().references('systems.id').onDelete('cascade'))
    .addColumn('alter_id', idType, (c) => c.notNull().references('alters.id').onDelete('cascade'))
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('pushed_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('front_records_history')
    .on('front_records')
    .columns(['system_id', 'pushed_at desc', 'id desc'])
    .execute();
  await db.schema
    .createIndex('front_records_by_client')
    .on('front_records')
    .columns(['system_id', 'client_id', 'pushed_at desc'])
    .execute();
  await db.schema.createIndex('front_records_alter').on('front_records').column('alter_id').execute();

  await db.schema
    .createTable('oidc_payloads')
    .addColumn('id_hash', 'text', (c) => c.primaryKey())
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('grant_id', 'text')
    .addColumn('uid_hash', 'text')
    .addColumn('user_code_hash', 'text')
    .addColumn('account_id', 'text')
    .addColumn('client_id', 'text')
    .addColumn('expires_at', 'bigint')
    .addColumn('consumed_at', 'bigint')
    .execute();
  await db.schema.createIndex('oidc_payloads_grant').on('oidc_payloads').column('grant_id').execute();
  await db.schema.createIndex('oidc_payloads_uid').on('oidc_payloads').column('uid_hash').execute();
  await db.schema.createIndex('oidc_payloads_user_code').on('oidc_payloads').column('user_code_hash').execute();
  await db.schema.createIndex('oidc_payloads_account').on('oidc_payloads').columns(['account_id', 'model']).execute();
  await db.schema.createIndex('oidc_payloads_expiry').on('oidc_payloads').column('expires_at').execute();

  await db.schema
    .createTable('login_links')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull().references('oauth_clients.id').onDelete('cascade'))
    .addColumn('return_to', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('consumed_at', 'bigint')
    .execute();
  await db.schema.createIndex('login_links_expiry').on('login_links').column('expires_at').execute();
}

export async function down(db: Db): Promise<void> {
  for (const table of [
    'login_links', 'oidc_payloads', 'front_records', 'autoproxy', 'alter_fields', 'oauth_clients',
    'alter_tags', 'tags', 'alters', 'system_sub_accounts', 'systems', 'users',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
