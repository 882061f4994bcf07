const { sendWelcome } = require('./mail');

async function signup(db, user) {
  if (!user.email) throw new Error('email is required');
  const saved = await db.users.insert(user);
  await sendWelcome(saved.email);
  return saved.id;
}

module.exports = { signup };
