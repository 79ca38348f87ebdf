/** One message to one address, plain text. */
export interface MailMessage {
  to: string
  subject: string
  text: string
}

/** Sends mail (SMTP, or the log in development); resolves once the message is accepted. */
export interface MailSender {
  send(message: MailMessage): Promise<void>
  close(): Promise<void>
}
