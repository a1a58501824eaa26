// What a new account starts with (as in the reference): five groups, a cash wallet, and the
// configuration entries that tell clients which group and wallet are the defaults.

/** Device half of client ids the server makes itself. */
export const SERVER_DEVICE_TOKEN = '00000000-0000-0000-0000-000000000000';

export const DEFAULT_GROUPS = ['General', 'Personal', 'Family', 'Friends', 'Work'] as const;

/** The group whose client id becomes the `default-group` configuration. */
export const DEFAULT_GROUP = 'General';

export const DEFAULT_WALLET = {
  name: 'Main Wallet',
  description: 'Your primary wallet',
  type: 'cash',
  currency: 'USD',
} as const;

export const groupDescription = (name: string) => `Default group for ${name}`;
