// The account e-mails: subject, plain text and a simple HTML rendering of the same words.
// Every value put into HTML is escaped.

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

const APP_NAME = 'Finance';

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** A minimal, mail-client-safe page: one column, inline styles, no images. */
function page(title: string, bodyHtml: string): string {
  return [
    '<!doctype html>',
    `<html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>`,
    '<body style="margin:0;padding:24px;background:#f5f5f5;font-family:Helvetica,Arial,sans-serif;color:#222">',
    '<div style="max-width:480px;margin:0 auto;background:#fff;border-radius:8px;padding:24px">',
    `<h1 style="font-size:20px;margin:0 0 16px">${escapeHtml(title)}</h1>`,
    bodyHtml,
    `<p style="font-size:12px;color:#888;margin-top:24px">${escapeHtml(APP_NAME)}</p>`,
    '</div></body></html>',
  ].join('\n');
}

const paragraph = (text: string) => `<p style="font-size:15px;line-height:1.5">${escapeHtml(text)}</p>`;
const codeBlock = (code: string) =>
  `<p style="font-size:28px;font-weight:bold;letter-spacing:6px;font-family:monospace;margin:16px 0">${escapeHtml(code)}</p>`;

function codeEmail(subject: string, intro: string, code: string, minutes: number, ignore: string): RenderedEmail {
  const expiry = `The code expires in ${minutes} minutes.`;
  return {
    subject,
    text: `${intro}\n\n${code}\n\n${expiry}\n${ignore}\n`,
    html: page(subject, [paragraph(intro), codeBlock(code), paragraph(expiry), paragraph(ignore)].join('\n')),
  };
}

export function verificationCodeEmail(code: string, minutes: number): RenderedEmail {
  return codeEmail(
    `Your ${APP_NAME} verification code`,
    `Your ${APP_NAME} verification code is:`,
    code,
    minutes,
    'If you did not ask for this code, you can ignore this e-mail.',
  );
}

export function passwordResetCodeEmail(code: string, minutes: number): RenderedEmail {
  return codeEmail(
    'Password Reset Code',
    `Your password reset code for ${APP_NAME} is:`,
    code,
    minutes,
    'If you did not ask to reset your password, you can ignore this e-mail; your password stays as it is.',
  );
}

export function passwordChangedEmail(): RenderedEmail {
  const subject = 'Your password was changed';
  const lines = [
    `The password of your ${APP_NAME} account has been reset, and every device was signed out.`,
    'If you did not make this change, please contact us at once.',
  ];
  return { subject, text: `${lines.join('\n\n')}\n`, html: page(subject, lines.map(paragraph).join('\n')) };
}
